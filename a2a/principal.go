package a2a

import "context"

type principalKey struct{}

// withPrincipal records the caller on a request's context. The SDK runs a
// task on a context detached from the request's cancellation but keeping
// its values, so the task store and the executor see the caller too.
func withPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

func principalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}
