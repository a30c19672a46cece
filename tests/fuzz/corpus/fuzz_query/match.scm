((identifier) @i (#match? @i "^(cuda|npu)[0-9]*$"))
((string_content) @s (#not-match? @s "^cuda"))