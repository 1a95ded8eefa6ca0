print("codec-bench: not yet")
