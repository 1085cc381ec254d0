package starlarktool

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// The host and a worker exchange frames over two pipes: a JSON header and
// a raw payload (a script's source, a call's arguments, a result), each
// after its 4-byte big-endian length, so neither side parses more than it
// bounded first and a result's JSON is not escaped a second time.

// request is what the host asks a worker to do.
type request struct {
	// Op is "load" (compile Prog from the payload, run its top level) or
	// "call" (run Prog's run with the payload as arguments).
	Op   string `json:"op"`
	Prog string `json:"prog"`
	File string `json:"file,omitempty"`
	// Steps, TimeoutNS and MaxOut are the run's caps.
	Steps     uint64 `json:"steps"`
	TimeoutNS int64  `json:"timeout_ns"`
	MaxOut    int    `json:"max_out"`
}

// response is a worker's answer; the payload is the result's JSON.
type response struct {
	Err *ScriptError `json:"err,omitempty"`
	// CPUNS is the worker's CPU time so far, so the host can retire it
	// before its lifetime CPU cap.
	CPUNS int64 `json:"cpu_ns"`
	// Spent says the worker's CPU cap has no room for another run: the
	// host retires it and runs the request on a fresh one.
	Spent bool `json:"spent,omitempty"`
}

// hello is a worker's first frame: it runs under its caps and serves.
type hello struct {
	Version int    `json:"version"`
	Err     string `json:"err,omitempty"`
}

// wireVersion changes whenever the frames do; a host refuses a worker of
// another version (a binary replaced on disk while it runs).
const wireVersion = 1

// writeFrame writes hdr as JSON and payload.
func writeFrame(w io.Writer, hdr any, payload []byte) error {
	h, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, 8+len(h)+len(payload))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(h)))
	buf = append(buf, h...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(payload)))
	buf = append(buf, payload...)
	_, err = w.Write(buf)
	return err
}

// readFrame reads a frame whose header is at most maxHdr bytes and
// payload at most maxPayload, decoding the header into hdr.
func readFrame(r io.Reader, hdr any, maxHdr, maxPayload int) ([]byte, error) {
	h, err := readPart(r, maxHdr)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(h, hdr); err != nil {
		return nil, fmt.Errorf("frame header: %w", err)
	}
	return readPart(r, maxPayload)
}

func readPart(r io.Reader, max int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if uint64(size) > uint64(max) {
		return nil, fmt.Errorf("frame part of %d bytes, over %d", size, max)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}
