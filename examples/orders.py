# Needs pandas: run with --install. `orders` is a DataFrame the reader never sees.
totals = orders.groupby("customer")["amount"].sum()
big = totals[totals > 100]
print(big.sort_values(ascending=False).head())
