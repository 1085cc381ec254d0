package gentrace

import "testing"

func TestUnsetProvider_IsTheAPIsDefault(t *testing.T) {
	// No test in this package installs a global provider, so the API's
	// default must have been recognised: untraced runs skip every span.
	if unsetProvider == nil {
		t.Fatal("the OpenTelemetry API's default provider was not recognised")
	}
	if Tracer(nil, "t") != nil {
		t.Fatal("Tracer returned a tracer with no provider installed")
	}
}
