"""Search spaces as data: the expression language (`expr`), variants, knobs and constraints (`spaces`), and the
rendering of kernel templates (`render`). Below both the search and the mutators."""
