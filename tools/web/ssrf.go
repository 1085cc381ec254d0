package web

import (
	"fmt"
	"net/netip"
	"strings"
)

// blockedPrefixes are the address ranges the SSRF guard refuses: every
// range that reaches this host, its network or its cloud's metadata
// service rather than the public internet.
var blockedPrefixes = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // this network, unspecified
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // CGNAT
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local, 169.254.169.254 metadata
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"192.88.99.0/24",  // 6to4 relay
		"192.168.0.0/16",  // private
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, broadcast
		"::/128",          // unspecified
		"::1/128",         // loopback
		"::ffff:0:0:0/96", // IPv4-translated (SIIT): embeds an IPv4 address
		"64:ff9b::/96",    // NAT64: embeds an IPv4 address
		"64:ff9b:1::/48",  // local NAT64
		"100::/64",        // discard
		"2001:db8::/32",   // documentation
		"2002::/16",       // 6to4: embeds an IPv4 address
		"fc00::/7",        // ULA, fd00:ec2::254 metadata
		"fe80::/10",       // link-local
		"fec0::/10",       // site-local (deprecated)
		"ff00::/8",        // multicast
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

// checkAddr returns an error when a is not a public unicast address.
// IPv4-mapped and IPv4-compatible IPv6 forms are judged as the IPv4
// address they carry.
func checkAddr(a netip.Addr) error {
	a = a.Unmap()
	if a.Is6() && !a.Is4In6() {
		// ::a.b.c.d, the deprecated IPv4-compatible form.
		b := a.As16()
		if [12]byte(b[:12]) == [12]byte{} {
			a = netip.AddrFrom4([4]byte(b[12:]))
		}
	}
	a = a.WithZone("")
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return fmt.Errorf("%s is in %s, which the SSRF guard refuses", a, p)
		}
	}
	return nil
}

// checkHostSpelling refuses hosts that some resolvers read as an IPv4
// address although they are not a dotted quad: 2130706433, 0x7f.1,
// 0177.0.0.1. A strict parser would treat them as names, a C resolver as
// addresses; refusing them is the only answer that is right for both.
func checkHostSpelling(host string) error {
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	if host == "" {
		return fmt.Errorf("empty host")
	}
	numeric := true
	for _, part := range strings.Split(strings.ToLower(host), ".") {
		if part == "" {
			continue
		}
		if strings.HasPrefix(part, "0x") {
			part = part[2:]
			for _, c := range part {
				if !strings.ContainsRune("0123456789abcdef", c) {
					numeric = false
				}
			}
			continue
		}
		for _, c := range part {
			if c < '0' || c > '9' {
				numeric = false
			}
		}
	}
	if numeric {
		return fmt.Errorf("host %q is a non-standard spelling of an IPv4 address", host)
	}
	return nil
}
