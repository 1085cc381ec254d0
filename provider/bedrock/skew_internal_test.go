package bedrock

import (
	"net/http"
	"testing"
	"time"
)

func TestSkewCorrection_OnlyASkewCodeWithATrustedDate(t *testing.T) {
	now := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	date := func(d time.Duration) http.Header {
		return http.Header{"Date": {now.Add(d).Format(http.TimeFormat)}}
	}
	for _, tt := range []struct {
		name   string
		code   string
		h      http.Header
		took   time.Duration
		offset time.Duration
		want   time.Duration
		ok     bool
	}{
		{"an hour ahead", "InvalidSignatureException", date(time.Hour), 0, 0, time.Hour, true},
		{"an hour behind", "InvalidSignatureException", date(-time.Hour), 0, 0, -time.Hour, true},
		{"S3-style code", "RequestTimeTooSkewed", date(time.Hour), 0, 0, time.Hour, true},
		{"under the threshold", "InvalidSignatureException", date(3 * time.Minute), 0, 0, 0, false},
		{"offset already right", "InvalidSignatureException", date(time.Hour), 0, time.Hour, 0, false},
		{"stale offset healed", "InvalidSignatureException", date(0), 0, time.Hour, 0, true},
		{"not a skew code", "ThrottlingException", date(time.Hour), 0, 0, 0, false},
		{"no Date", "InvalidSignatureException", http.Header{}, 0, 0, 0, false},
		{"bad Date", "InvalidSignatureException", http.Header{"Date": {"yesterday"}}, 0, 0, 0, false},
		{"from a cache", "InvalidSignatureException", http.Header{"Date": {now.Add(time.Hour).Format(http.TimeFormat)}, "Age": {"30"}}, 0, 0, 0, false},
		{"slow round trip", "InvalidSignatureException", date(time.Hour), 16 * time.Minute, 0, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := skewCorrection(tt.code, tt.h, now.Add(-tt.took), now, tt.offset)
			if ok != tt.ok || got != tt.want {
				t.Errorf("skewCorrection = %s, %v; want %s, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
