// Package hosting holds what the packages that host agents behind a
// network endpoint (server, agentcore) share: how a request's session id
// maps to a session ([Provider], [Func], [Memory]) and the safe default
// RunContext every such request starts from ([PlanContext]).
//
// The hosts re-export these under their own names (server.SessionProvider,
// agentcore.SessionFunc, ...) as aliases, so one provider value serves
// both:
//
//	var sessions hosting.Provider = hosting.NewMemory()
//	s, err := sessions.Session(ctx, "conversation-1")
package hosting
