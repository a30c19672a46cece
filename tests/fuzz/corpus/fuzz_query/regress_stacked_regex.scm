((identifier) @i (#match? @i "^(cuda|npu)[0-9]*$"))attribute:
((string_content) @s (#not-match? @s "^cud#match?entif++++++++++++++2+++++++++++++++++++HHHHs ea")( (#s "bar")))