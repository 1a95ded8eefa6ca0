print("geometry-bench: not yet")
