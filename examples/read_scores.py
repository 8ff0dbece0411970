# Reads a file that is not there, and calls a helper that was never defined.
with open("scores.csv") as fh:
    header = fh.readline().strip().split(",")
    rows = [line.strip().split(",") for line in fh]
best = max(rows, key=lambda r: float(r[2]))
print(summarize(header, best))
