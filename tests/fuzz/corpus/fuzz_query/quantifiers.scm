[(call) (attribute)]* @many
(function_definition name: (_) @n body: (block . (_)? @first))