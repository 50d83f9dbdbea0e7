"""ragcode.index"""
