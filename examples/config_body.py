# The body of a method cut out of a class: `self`, a parameter and a top-level return.
settings = self.defaults.copy()
for key, value in overrides.items():
    if value is not None:
        settings[key] = value
return settings
