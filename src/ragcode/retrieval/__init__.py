"""ragcode.retrieval"""
