"""ragcode.bench"""
