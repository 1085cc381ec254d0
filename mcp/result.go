package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
)

// mapResult turns a tools/call result into what the model sees:
// structuredContent passed through as is; one text block as a JSON string;
// several blocks as a JSON array of MCP content blocks, with images also
// given as image parts so that a multimodal model sees them; isError as a
// [helikon.ToolError] carrying the text.
func mapResult(tool string, res *sdk.CallToolResult) (helikon.ToolOutput, error) {
	if res.IsError {
		return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: tool, Err: errors.New(errorText(res))}
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: tool, Err: fmt.Errorf("structured content: %w", err)}
		}
		return helikon.ToolOutput{Content: b}, nil
	}
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok {
			return helikon.TextOutput(tc.Text), nil
		}
	}
	blocks := make([]json.RawMessage, len(res.Content))
	hasImage := false
	for i, c := range res.Content {
		b, err := json.Marshal(c)
		if err != nil {
			return helikon.ToolOutput{}, &helikon.ToolError{Kind: helikon.ToolFailed, Tool: tool, Err: fmt.Errorf("content block %d: %w", i, err)}
		}
		blocks[i] = b
		if _, ok := c.(*sdk.ImageContent); ok {
			hasImage = true
		}
	}
	content, _ := json.Marshal(blocks) // re-encoding encoded blocks cannot fail
	out := helikon.ToolOutput{Content: content}
	if hasImage {
		out.Parts = make([]helikon.ContentPart, len(res.Content))
		for i, c := range res.Content {
			switch c := c.(type) {
			case *sdk.TextContent:
				out.Parts[i] = helikon.TextPart{Text: c.Text}
			case *sdk.ImageContent:
				out.Parts[i] = helikon.ImagePart{MediaType: c.MIMEType, Data: c.Data}
			default:
				out.Parts[i] = helikon.TextPart{Text: string(blocks[i])}
			}
		}
	}
	return out, nil
}

// errorText is what an error result says, for the model.
func errorText(res *sdk.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok && tc.Text != "" {
			texts = append(texts, tc.Text)
		}
	}
	if len(texts) == 0 {
		return "the tool reported an error"
	}
	return strings.Join(texts, "\n")
}
