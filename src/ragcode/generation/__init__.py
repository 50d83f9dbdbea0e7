"""ragcode.generation"""
