package fvault2

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Core Storage keeps its metadata as XML property lists in Apple's
// "plist-like" form: no DOCTYPE, and values may carry ID="n" attributes
// that a later <reference IDREF="n"/> repeats. parsePlist reads that
// form (and the ordinary one) into plistValue trees.

type plistKind int

const (
	plistString plistKind = iota + 1
	plistInteger
	plistData
	plistBool
	plistDict
	plistArray
)

// plistValue is one parsed value; which fields mean something depends on
// kind.
type plistValue struct {
	kind plistKind
	str  string // string; also an integer's text
	num  int64  // integer, bool (0 or 1)
	data []byte // data
	dict map[string]*plistValue
	arr  []*plistValue
}

// Limits against hostile input: the XML comes from a disk image.
const (
	plistMaxDepth  = 32
	plistMaxValues = 1 << 16
)

var errPlist = errors.New("malformed XML plist")

// parsePlist parses one value (normally a dict) from b; trailing NUL
// bytes are ignored, and a <plist> element around the value is allowed.
func parsePlist(b []byte) (*plistValue, error) {
	b = bytes.TrimRight(b, "\x00")
	p := &plistParser{d: xml.NewDecoder(bytes.NewReader(b)), ids: map[string]*plistValue{}}
	p.d.Strict = true
	for {
		tok, err := p.d.Token()
		if err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("%w: no value", errPlist)
			}
			return nil, fmt.Errorf("%w: %v", errPlist, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "plist" {
				continue
			}
			return p.value(t, 0)
		case xml.EndElement:
			return nil, fmt.Errorf("%w: no value", errPlist)
		}
	}
}

type plistParser struct {
	d      *xml.Decoder
	ids    map[string]*plistValue
	values int
}

func attr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// value parses the element that t starts, up to and including its end.
func (p *plistParser) value(t xml.StartElement, depth int) (*plistValue, error) {
	if depth > plistMaxDepth {
		return nil, fmt.Errorf("%w: nested more than %d deep", errPlist, plistMaxDepth)
	}
	if p.values++; p.values > plistMaxValues {
		return nil, fmt.Errorf("%w: more than %d values", errPlist, plistMaxValues)
	}
	var v *plistValue
	var err error
	switch t.Name.Local {
	case "dict":
		v, err = p.dictBody(depth)
	case "array":
		v, err = p.arrayBody(depth)
	case "reference":
		ref, ok := attr(t, "IDREF")
		if !ok {
			return nil, fmt.Errorf("%w: <reference> without IDREF", errPlist)
		}
		if v = p.ids[ref]; v == nil {
			return nil, fmt.Errorf("%w: IDREF %q names no earlier value", errPlist, ref)
		}
		if _, err = p.text("reference"); err != nil {
			return nil, err
		}
		return v, nil // a reference has no ID of its own
	case "true", "false":
		if _, err = p.text(t.Name.Local); err == nil {
			v = &plistValue{kind: plistBool}
			if t.Name.Local == "true" {
				v.num = 1
			}
		}
	case "string", "key":
		var s string
		if s, err = p.text(t.Name.Local); err == nil {
			v = &plistValue{kind: plistString, str: s}
		}
	case "integer":
		var s string
		if s, err = p.text("integer"); err == nil {
			v, err = parseInteger(strings.TrimSpace(s))
		}
	case "data":
		var s string
		if s, err = p.text("data"); err == nil {
			var d []byte
			d, err = base64.StdEncoding.DecodeString(strings.Map(dropSpace, s))
			if err != nil {
				err = fmt.Errorf("%w: <data>: %v", errPlist, err)
			}
			v = &plistValue{kind: plistData, data: d}
		}
	default:
		return nil, fmt.Errorf("%w: unknown element <%s>", errPlist, t.Name.Local)
	}
	if err != nil {
		return nil, err
	}
	if id, ok := attr(t, "ID"); ok {
		p.ids[id] = v
	}
	return v, nil
}

func dropSpace(r rune) rune {
	switch r {
	case ' ', '\t', '\n', '\r':
		return -1
	}
	return r
}

func parseInteger(s string) (*plistValue, error) {
	var n int64
	var err error
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		var u uint64
		u, err = strconv.ParseUint(s[2:], 16, 64)
		n = int64(u) // a 64-bit integer written in hex keeps its bits
	default:
		n, err = strconv.ParseInt(s, 10, 64)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: <integer>%q", errPlist, s)
	}
	return &plistValue{kind: plistInteger, num: n, str: s}, nil
}

// text reads character data up to the end of the element name, which
// must hold no elements.
func (p *plistParser) text(name string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := p.d.Token()
		if err != nil {
			return "", fmt.Errorf("%w: in <%s>: %v", errPlist, name, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.EndElement:
			return sb.String(), nil
		case xml.StartElement:
			return "", fmt.Errorf("%w: <%s> inside <%s>", errPlist, t.Name.Local, name)
		}
	}
}

func (p *plistParser) dictBody(depth int) (*plistValue, error) {
	v := &plistValue{kind: plistDict, dict: map[string]*plistValue{}}
	var key *string
	for {
		tok, err := p.d.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: in <dict>: %v", errPlist, err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if key != nil {
				return nil, fmt.Errorf("%w: <key>%s</key> without a value", errPlist, *key)
			}
			return v, nil
		case xml.StartElement:
			if key == nil {
				if t.Name.Local != "key" {
					return nil, fmt.Errorf("%w: <%s> where a <key> belongs", errPlist, t.Name.Local)
				}
				s, err := p.text("key")
				if err != nil {
					return nil, err
				}
				key = &s
				continue
			}
			e, err := p.value(t, depth+1)
			if err != nil {
				return nil, err
			}
			v.dict[*key] = e
			key = nil
		}
	}
}

func (p *plistParser) arrayBody(depth int) (*plistValue, error) {
	v := &plistValue{kind: plistArray}
	for {
		tok, err := p.d.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: in <array>: %v", errPlist, err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return v, nil
		case xml.StartElement:
			e, err := p.value(t, depth+1)
			if err != nil {
				return nil, err
			}
			v.arr = append(v.arr, e)
		}
	}
}

// Accessors: each returns the zero value when v is nil or not of the
// kind asked for, so that paths through optional keys stay short.

func (v *plistValue) get(key string) *plistValue {
	if v == nil || v.kind != plistDict {
		return nil
	}
	return v.dict[key]
}

func (v *plistValue) stringValue() (string, bool) {
	if v == nil || v.kind != plistString {
		return "", false
	}
	return v.str, true
}

func (v *plistValue) intValue() (int64, bool) {
	if v == nil || v.kind != plistInteger {
		return 0, false
	}
	return v.num, true
}

func (v *plistValue) dataValue() ([]byte, bool) {
	if v == nil || v.kind != plistData {
		return nil, false
	}
	return v.data, true
}

func (v *plistValue) array() []*plistValue {
	if v == nil || v.kind != plistArray {
		return nil
	}
	return v.arr
}
