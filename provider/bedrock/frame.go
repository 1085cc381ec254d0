package bedrock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// errMalformedFrame is the cause of an event-stream message whose framing
// or checksums do not hold.
var errMalformedFrame = errors.New("malformed event-stream message")

// frame is one decoded event-stream message; its slices point into the
// reader's buffer and hold until the next read.
type frame struct {
	messageType, eventType, exceptionType []byte
	errorCode, errorMessage               []byte
	payload                               []byte
}

// frameReader reads the binary event stream of a ConverseStream response
// (application/vnd.amazon.eventstream: a prelude of total length, headers
// length and CRC-32, the headers, the payload and the message's CRC-32)
// into one reused buffer, checking both checksums and bounding each
// message to max bytes before reading it.
type frameReader struct {
	r   io.Reader
	max int
	buf []byte
}

// next reads one message into f. It returns io.EOF at a clean end between
// messages, and io.ErrUnexpectedEOF for a stream cut inside one.
func (fr *frameReader) next(f *frame) error {
	if len(fr.buf) < preludeLen {
		fr.buf = make([]byte, 4096)
	}
	if _, err := io.ReadFull(fr.r, fr.buf[:preludeLen]); err != nil {
		return err
	}
	p := fr.buf[:preludeLen]
	total, hlen := binary.BigEndian.Uint32(p[0:4]), binary.BigEndian.Uint32(p[4:8])
	if crc32.ChecksumIEEE(p[:8]) != binary.BigEndian.Uint32(p[8:12]) {
		return fmt.Errorf("%w: prelude checksum", errMalformedFrame)
	}
	if int64(total) > int64(fr.max) {
		return &eventTooLargeError{size: int64(total), max: int64(fr.max)}
	}
	if total < preludeLen+4 || hlen > total-preludeLen-4 {
		return fmt.Errorf("%w: lengths %d and %d", errMalformedFrame, total, hlen)
	}
	if int(total) > len(fr.buf) {
		nb := make([]byte, max(int(total), 2*len(fr.buf)))
		copy(nb, p)
		fr.buf = nb
	}
	msg := fr.buf[:total]
	if _, err := io.ReadFull(fr.r, msg[preludeLen:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if crc32.ChecksumIEEE(msg[:total-4]) != binary.BigEndian.Uint32(msg[total-4:]) {
		return fmt.Errorf("%w: message checksum", errMalformedFrame)
	}
	*f = frame{payload: msg[preludeLen+hlen : total-4]}
	return f.headers(msg[preludeLen : preludeLen+hlen])
}

// headers reads the headers the adapter needs and skips the others.
func (f *frame) headers(h []byte) error {
	for len(h) > 0 {
		n := int(h[0])
		if len(h) < 1+n+1 {
			return fmt.Errorf("%w: header name", errMalformedFrame)
		}
		name, typ := h[1:1+n], h[1+n]
		h = h[2+n:]
		var size int
		switch typ {
		case 0, 1: // true, false
		case 2:
			size = 1
		case 3:
			size = 2
		case 4:
			size = 4
		case 5, 8: // long, timestamp
			size = 8
		case 9: // uuid
			size = 16
		case 6, 7: // bytes, string
			if len(h) < 2 {
				return fmt.Errorf("%w: header value", errMalformedFrame)
			}
			size = 2 + int(binary.BigEndian.Uint16(h))
		default:
			return fmt.Errorf("%w: header type %d", errMalformedFrame, typ)
		}
		if len(h) < size {
			return fmt.Errorf("%w: header value", errMalformedFrame)
		}
		if typ == 7 {
			v := h[2:size]
			switch string(name) {
			case ":message-type":
				f.messageType = v
			case ":event-type":
				f.eventType = v
			case ":exception-type":
				f.exceptionType = v
			case ":error-code":
				f.errorCode = v
			case ":error-message":
				f.errorMessage = v
			}
		}
		h = h[size:]
	}
	return nil
}
