module harness-tool.supervisor

go 1.26
