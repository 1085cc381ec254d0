// Command floor is the smallest program that does what the AgentCore
// example's Bedrock and SQLite build must be able to do, without Helikon:
// it answers GET /ping with net/http, opens a SQLite database with
// modernc.org/sqlite (go-sqlite3 with -tags sqlite_cgo, as session/sqlite
// does), and sends one HTTPS POST signed with the AWS SDK's SigV4 signer.
// Its stripped static binary is the floor the example's size is measured
// against (README.md, "Measured"): what is left above it is the agent
// runtime.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"flag"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	db := flag.String("db", "", "SQLite file to open")
	post := flag.String("post", "", "URL to POST one signed request to")
	flag.Parse()
	ctx := context.Background()
	if *db != "" {
		d, err := sql.Open(sqliteDriver, *db)
		if err == nil {
			_ = d.PingContext(ctx)
			_ = d.Close()
		}
	}
	if *post != "" {
		body := []byte(`{}`)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, *post, bytes.NewReader(body))
		if err == nil {
			sum := sha256.Sum256(body)
			creds := aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "SECRET"}
			if v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "bedrock", "us-east-1", time.Now()) == nil {
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	}
	http.HandleFunc("/ping", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"status":"Healthy"}`)) })
	_ = http.ListenAndServe(*addr, nil)
}
