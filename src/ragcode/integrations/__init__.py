"""ragcode.integrations"""
