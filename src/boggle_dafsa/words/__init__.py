"""Text in: bytes to text (decoding), normalization policies, word-list parsing."""
