import ImageCodecs
print("codec-bench: not yet")
