package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rpcError is a JSON-RPC error reply the server writes itself, for a
// message the go-sdk would not take: its own replies omit an unknown id,
// where JSON-RPC 2.0 wants "id": null.
type rpcError struct {
	// id is the request's id as it came (a string or an integer), or nil
	// when it could not be read.
	id      json.RawMessage
	code    int64
	message string
}

// encode returns the reply's wire form, without a trailing newline.
func (e *rpcError) encode() []byte {
	id := e.id
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{e.code, e.message}})
	if err != nil { // an id checkMessage accepted always encodes
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return b
}

func parseError(msg string) *rpcError {
	return &rpcError{code: jsonrpc.CodeParseError, message: "parse error: " + msg}
}

func invalidRequest(id json.RawMessage, msg string) *rpcError {
	return &rpcError{id: id, code: jsonrpc.CodeInvalidRequest, message: "invalid request: " + msg}
}

// checkMessage returns the error to answer data with when it is not one
// JSON-RPC message, or a non-empty batch of them, that the go-sdk decodes;
// nil when it is, with the message when data is one. data is a whole line
// or body, trimmed.
func checkMessage(data []byte) (jsonrpc.Message, *rpcError) {
	if len(data) == 0 {
		return nil, parseError("empty message")
	}
	if !json.Valid(data) {
		var raw json.RawMessage
		err := json.Unmarshal(data, &raw) // for the syntax error's text
		return nil, parseError(err.Error())
	}
	switch data[0] {
	case '{':
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			return nil, invalidRequest(messageID(data), err.Error())
		}
		return msg, nil
	case '[':
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			return nil, invalidRequest(nil, err.Error())
		}
		if len(batch) == 0 {
			return nil, invalidRequest(nil, "empty batch")
		}
		seen := make(map[any]bool, len(batch))
		for i, m := range batch {
			msg, err := jsonrpc.DecodeMessage(m)
			if err != nil {
				return nil, invalidRequest(nil, fmt.Sprintf("batch member %d: %v", i, err))
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				if seen[req.ID.Raw()] {
					return nil, invalidRequest(nil, fmt.Sprintf("batch member %d repeats id %v", i, req.ID.Raw()))
				}
				seen[req.ID.Raw()] = true
			}
		}
		return nil, nil
	}
	return nil, invalidRequest(nil, "a message is a JSON object (or a batch, an array of them)")
}

// messageID returns the "id" member of a JSON object when it is a string or
// an integer that fits in 64 bits, as sent; else nil. Other numbers (1.5,
// 1e400) are not echoed: a client might not read them back.
func messageID(data []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &probe) != nil || len(probe.ID) == 0 {
		return nil
	}
	if probe.ID[0] == '"' {
		return bytes.Clone(probe.ID)
	}
	if _, err := strconv.ParseInt(string(probe.ID), 10, 64); err == nil {
		return bytes.Clone(probe.ID)
	}
	return nil
}
