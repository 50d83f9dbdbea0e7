"""LLM backends, each imported only when chosen (see ``ragcode.generation.llm.LLMS``)."""
