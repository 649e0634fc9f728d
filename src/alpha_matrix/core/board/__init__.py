"""The board: many run directories (a matrix and seven suites per model) as one table (alpha-matrix board)."""
