(comparison_operator (identifier) @a (identifier) @b (#not-eq? @a @b))
((attribute object: (identifier) @o) @x (#not-any-of? @o "self" "torch"))