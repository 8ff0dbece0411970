# A fragment as it might appear in an answer: `text` and `Counter` come from nowhere.
words = text.lower().split()
counts = Counter(words)
for word, n in counts.most_common(3):
    print(f"{word}: {n}")
