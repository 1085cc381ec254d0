package helikon

import "testing"

func TestUnsetProvider_IsTheAPIsDefault(t *testing.T) {
	// No test in this package installs a global provider, so the API's
	// default must have been recognised: untraced runs skip every span.
	if unsetProvider == nil {
		t.Fatal("the OpenTelemetry API's default provider was not recognised")
	}
	if runTracer(nil) != nil {
		t.Fatal("runTracer returned a tracer with no provider installed")
	}
}
