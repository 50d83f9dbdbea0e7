"""ragcode.chunking"""
