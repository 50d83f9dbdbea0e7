"""ragcode.execution"""
