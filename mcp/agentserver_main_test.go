package mcp_test

func agentServerMain(string) (int, bool) { return 0, false }
