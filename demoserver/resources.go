package demoserver

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// Resource URIs. Static resources are demo://resource/1..N: text for even
// N, a blob for odd N. Two templates resolve any id or name.
const (
	resourcePrefix   = "demo://resource/"
	itemTemplate     = "demo://item/{id}"
	itemPrefix       = "demo://item/"
	userTemplate     = "demo://user/{name}/profile"
	userPrefix       = "demo://user/"
	userSuffix       = "/profile"
	mimeText         = "text/plain"
	mimeJSON         = "application/json"
	mimeOctetStream  = "application/octet-stream"
	resourceBlobSize = 16
)

var templates = []messages.ResourceTemplate{
	{URITemplate: itemTemplate, Name: "item", Title: "Item", Description: "Any item by id.", MimeType: mimeText},
	{URITemplate: userTemplate, Name: "user-profile", Title: "User profile", Description: "A user's profile as JSON.", MimeType: mimeJSON},
}

func resourceDef(n int) messages.Resource {
	s := strconv.Itoa(n)
	r := messages.Resource{URI: resourcePrefix + s, Name: "resource-" + s, Title: "Resource " + s}
	size := int64(resourceBlobSize)
	if n%2 == 0 {
		r.MimeType = mimeText
		size = int64(len(resourceText(n)))
		r.Description = "A text resource."
	} else {
		r.MimeType = mimeOctetStream
		r.Description = "A binary resource."
	}
	r.Size = &size
	return r
}

func resourceText(n int) string { return "Resource " + strconv.Itoa(n) + ": this is a text resource." }

func resourceBlob(n int) string {
	var b [resourceBlobSize]byte
	for i := range b {
		b[i] = byte(n + i)
	}
	return base64.StdEncoding.EncodeToString(b[:])
}

// readResource resolves a URI to its contents.
func (srv *Server) readResource(uri string) (messages.ResourceContents, bool) {
	if rest, ok := strings.CutPrefix(uri, resourcePrefix); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > srv.opts.Resources || strconv.Itoa(n) != rest {
			return messages.ResourceContents{}, false
		}
		if n%2 == 0 {
			return messages.ResourceContents{URI: uri, MimeType: mimeText, Text: resourceText(n)}, true
		}
		return messages.ResourceContents{URI: uri, MimeType: mimeOctetStream, Blob: resourceBlob(n)}, true
	}
	if id, ok := strings.CutPrefix(uri, itemPrefix); ok && id != "" && !strings.Contains(id, "/") {
		return messages.ResourceContents{URI: uri, MimeType: mimeText, Text: "Item " + id}, true
	}
	if rest, ok := strings.CutPrefix(uri, userPrefix); ok {
		if name, ok := strings.CutSuffix(rest, userSuffix); ok && name != "" && !strings.Contains(name, "/") {
			var b []byte
			b = append(b, `{"name":`...)
			b = appendString(b, name)
			b = append(b, `,"kind":"user"}`...)
			return messages.ResourceContents{URI: uri, MimeType: mimeJSON, Text: string(b)}, true
		}
	}
	return messages.ResourceContents{}, false
}

// resourceNotFound is -32002 with data.uri, or in the stateless era
// -32602 with data.uri (SEP-2164).
func resourceNotFound(r *request, uri string) *messages.WireError {
	return mcpserver.ResourceNotFound(uri, "resource not found: "+uri, r.modern)
}

func handleResourcesList(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.PaginatedParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	srv := r.s.srv
	lo, hi, next, werr := page("resources", p.Cursor, srv.opts.Resources, srv.opts.PageSize)
	if werr != nil {
		return buf, werr
	}
	res := messages.ListResourcesResult{Resources: make([]messages.Resource, 0, hi-lo), NextCursor: next}
	for i := lo; i < hi; i++ {
		res.Resources = append(res.Resources, resourceDef(i+1))
	}
	return appendMarshal(buf, &res)
}

func handleTemplatesList(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.PaginatedParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	lo, hi, next, werr := page("templates", p.Cursor, len(templates), r.s.srv.opts.PageSize)
	if werr != nil {
		return buf, werr
	}
	return appendMarshal(buf, &messages.ListResourceTemplatesResult{ResourceTemplates: templates[lo:hi], NextCursor: next})
}

func handleResourcesRead(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.ReadResourceParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	c, ok := r.s.srv.readResource(p.URI)
	if !ok {
		return buf, resourceNotFound(r, p.URI)
	}
	return appendMarshal(buf, &messages.ReadResourceResult{Contents: []messages.ResourceContents{c}})
}

// handleSubscribe records a subscription (for the touch tool). Unknown URIs
// are refused with -32002 (subscribe is not in the stateless era).
func handleSubscribe(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.SubscribeParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	if _, ok := r.s.srv.readResource(p.URI); !ok {
		return buf, resourceNotFound(r, p.URI)
	}
	r.s.mu.Lock()
	r.s.subs[p.URI] = struct{}{}
	r.s.mu.Unlock()
	return append(buf, "{}"...), nil
}

// handleUnsubscribe forgets a subscription; unsubscribing from something
// not subscribed is not an error.
func handleUnsubscribe(r *request, buf []byte) ([]byte, *messages.WireError) {
	var p messages.UnsubscribeParams
	if werr := decodeParams(r.params, &p); werr != nil {
		return buf, werr
	}
	r.s.mu.Lock()
	delete(r.s.subs, p.URI)
	r.s.mu.Unlock()
	return append(buf, "{}"...), nil
}
