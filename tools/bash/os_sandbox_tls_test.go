//go:build linux

package bash

import (
	"os"
	"testing"
)

// Node read /etc/ssl/openssl.cnf at start and exited ("OpenSSL
// configuration error", exit 13) when Landlock refused it, and Python's
// default TLS context held no certificate: the system's CA certificates
// and OpenSSL's configuration are readable, its private keys are not.
func TestOsSandbox_TLSClientsReadTheSystemCertificates(t *testing.T) {
	const bundle, conf = "/etc/ssl/certs/ca-certificates.crt", "/etc/ssl/openssl.cnf"
	for _, p := range []string{bundle, conf} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("this host has no %s", p)
		}
	}
	b, _ := osTool(t)
	r, err := runTool(t, t.Context(), b, Args{Command: "head -c 1 " + bundle + " " + conf + " >/dev/null && echo read"})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 || r.Stdout != "read\n" {
		t.Errorf("reading the CA bundle and openssl.cnf: %+v", r)
	}
	if _, err := os.Stat("/etc/ssl/private"); err == nil {
		r, err := runTool(t, t.Context(), b, Args{Command: "ls /etc/ssl/private"})
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode == 0 {
			t.Errorf("/etc/ssl/private is listed: %+v", r)
		}
	}
}
