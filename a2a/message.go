package a2a

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	a2apb "github.com/a2aproject/a2a-go/a2a"

	"github.com/paigasus/helikon"
)

// ErrUnsupportedPart reports a message part a [Server] cannot give its
// agent: a file that is not an image.
var ErrUnsupportedPart = errors.New("a2a: unsupported message part")

// itemsFrom turns an A2A message into a run's input: one user item whose
// text parts are the message's text, its data parts as JSON text, and its
// image files as images.
func itemsFrom(msg *a2apb.Message) ([]helikon.Item, error) {
	if msg == nil || len(msg.Parts) == 0 {
		return nil, fmt.Errorf("%w: the message has no parts", ErrUnsupportedPart)
	}
	parts := make([]helikon.ContentPart, 0, len(msg.Parts))
	for _, p := range msg.Parts {
		switch p := p.(type) {
		case a2apb.TextPart:
			parts = append(parts, helikon.TextPart{Text: p.Text})
		case a2apb.DataPart:
			raw, err := json.Marshal(p.Data)
			if err != nil {
				return nil, fmt.Errorf("%w: data part: %w", ErrUnsupportedPart, err)
			}
			parts = append(parts, helikon.TextPart{Text: string(raw)})
		case a2apb.FilePart:
			img, err := imageOf(p)
			if err != nil {
				return nil, err
			}
			parts = append(parts, img)
		default:
			return nil, fmt.Errorf("%w: %T", ErrUnsupportedPart, p)
		}
	}
	return []helikon.Item{{Role: helikon.RoleUser, Content: parts}}, nil
}

func imageOf(p a2apb.FilePart) (helikon.ImagePart, error) {
	switch f := p.File.(type) {
	case a2apb.FileBytes:
		if !strings.HasPrefix(f.MimeType, "image/") {
			return helikon.ImagePart{}, fmt.Errorf("%w: a file of type %q (only images)", ErrUnsupportedPart, f.MimeType)
		}
		data, err := base64.StdEncoding.DecodeString(f.Bytes)
		if err != nil {
			return helikon.ImagePart{}, fmt.Errorf("%w: file bytes are not base64: %w", ErrUnsupportedPart, err)
		}
		return helikon.ImagePart{MediaType: f.MimeType, Data: data}, nil
	case a2apb.FileURI:
		if !strings.HasPrefix(f.MimeType, "image/") {
			return helikon.ImagePart{}, fmt.Errorf("%w: a file of type %q (only images)", ErrUnsupportedPart, f.MimeType)
		}
		return helikon.ImagePart{MediaType: f.MimeType, URL: f.URI}, nil
	}
	return helikon.ImagePart{}, fmt.Errorf("%w: a file with no content", ErrUnsupportedPart)
}
