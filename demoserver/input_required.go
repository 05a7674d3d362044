package demoserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine/messages"
)

// The client-feature tools (sample, elicit, roots) in the stateless era
// (2026-07-28), where a server cannot send the client a request: the tool
// answers input_required with the input request and a requestState, and
// completes when the request comes back with the answer in inputResponses.
// Their optional argument "rounds" (default 1) makes them ask that many
// times, one input request per round, before completing with the last
// answer.
//
// requestState is "<payload>.<mac>", both base64url: the payload names the
// tool, a digest of its arguments, the round asked and an expiry, and the
// mac is an HMAC-SHA256 of it under a key drawn when the process starts.
// A retry whose state is missing, forged, expired or made for another
// call is refused with -32602 (invalid params), as the specification asks
// of state that fails verification.

// stateTTL bounds how long a requestState is honoured.
const stateTTL = 5 * time.Minute

// maxAskRounds caps the rounds argument.
const maxAskRounds = 64

var stateKey = func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("demoserver: no randomness for the requestState key: " + err.Error())
	}
	return k
}()

// inputNeeded is what askClient returns in the stateless era while the
// client's answer is not there yet: the tool answers with result.
type inputNeeded struct {
	result messages.InputRequiredResult
}

func (*inputNeeded) Error() string { return "input required" }

// retryParams are the members of a retried request the round trip reads.
type retryParams struct {
	InputResponses map[string]messages.RawMessage `json:"inputResponses"`
	RequestState   *string                        `json:"requestState"`
	Arguments      messages.RawMessage            `json:"arguments"`
	Meta           *struct {
		Capabilities *messages.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
}

// askClient returns the client's answer to a server→client request: in the
// handshake era by sending it, in the stateless era from the retried
// request's inputResponses, or an *inputNeeded (or a -32602/-32021
// *messages.WireError) for the tool to answer with.
func (r *request) askClient(method string, params any) (messages.RawMessage, error) {
	if !r.modern {
		return r.s.call(r.ctx, method, params)
	}
	var p retryParams
	if err := decodeJSON(r.params, &p); err != nil {
		return nil, invalidParams(err.Error())
	}
	if werr := requireCapability(p.Meta, method); werr != nil {
		return nil, werr
	}
	rounds := 1
	var a struct {
		Rounds int `json:"rounds"`
	}
	if len(p.Arguments) > 0 && decodeJSON(p.Arguments, &a) == nil && a.Rounds > 0 {
		rounds = min(a.Rounds, maxAskRounds)
	}
	tool := r.tool.def.Name
	digest := argsDigest(p.Arguments)
	round := 1
	if p.RequestState == nil {
		if len(p.InputResponses) > 0 {
			return nil, invalidParams("inputResponses without requestState")
		}
	} else {
		var werr *messages.WireError
		if round, werr = verifyState(*p.RequestState, tool, digest[:]); werr != nil {
			return nil, werr
		}
		if answer, ok := p.InputResponses[inputKey(tool, round)]; ok {
			if round >= rounds {
				return answer, nil
			}
			round++
		}
		// An answer missing from a valid retry is asked for again, as the
		// specification recommends.
	}
	raw, err := messages.Marshal(params)
	if err != nil {
		return nil, internalError(err)
	}
	return nil, &inputNeeded{result: messages.InputRequiredResult{
		ResultType:    messages.ResultTypeInputRequired,
		InputRequests: map[string]messages.InputRequest{inputKey(tool, round): {Method: method, Params: raw}},
		RequestState:  signState(tool, digest[:], round),
	}}
}

// requireCapability refuses, with -32021, an input request the client did
// not declare it can answer: a server must not send it one.
func requireCapability(meta *struct {
	Capabilities *messages.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
}, method string) *messages.WireError {
	var caps messages.ClientCapabilities
	if meta != nil && meta.Capabilities != nil {
		caps = *meta.Capabilities
	}
	var need messages.ClientCapabilities
	switch method {
	case messages.MethodSamplingCreateMessage:
		if caps.Sampling != nil {
			return nil
		}
		need.Sampling = &messages.SamplingCapability{}
	case messages.MethodElicitationCreate:
		if caps.Elicitation != nil {
			return nil
		}
		need.Elicitation = &messages.ElicitationCapability{}
	case messages.MethodRootsList:
		if caps.Roots != nil {
			return nil
		}
		need.Roots = &messages.RootsCapability{}
	}
	data, _ := messages.Marshal(&messages.MissingCapabilityData{RequiredCapabilities: need})
	return &messages.WireError{Code: messages.CodeMissingClientCapability, Message: "Missing required client capability", Data: data}
}

// argsDigest digests the arguments in a canonical form (sorted keys), so
// that a client re-encoding them for the retry still matches.
func argsDigest(args messages.RawMessage) [32]byte {
	var v any
	if len(args) > 0 && json.Unmarshal(args, &v) == nil {
		if canon, err := json.Marshal(v); err == nil {
			args = canon
		}
	}
	return sha256.Sum256(args)
}

func inputKey(tool string, round int) string { return tool + "-" + strconv.Itoa(round) }

func signState(tool string, digest []byte, round int) string {
	payload := tool + "|" + base64.RawURLEncoding.EncodeToString(digest) + "|" + strconv.Itoa(round) + "|" +
		strconv.FormatInt(time.Now().Add(stateTTL).Unix(), 10)
	enc := base64.RawURLEncoding.EncodeToString([]byte(payload))
	return enc + "." + base64.RawURLEncoding.EncodeToString(mac(enc))
}

func mac(s string) []byte {
	h := hmac.New(sha256.New, stateKey)
	h.Write([]byte(s))
	return h.Sum(nil)
}

var errBadState = invalidParams("invalid requestState")

// verifyState returns the round a requestState was issued for, or -32602
// if it was not issued by this server for this tool and these arguments,
// or has expired.
func verifyState(state, tool string, digest []byte) (int, *messages.WireError) {
	enc, sig, ok := strings.Cut(state, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, mac(enc)) {
		return 0, errBadState
	}
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return 0, errBadState
	}
	f := strings.Split(string(payload), "|")
	if len(f) != 4 || f[0] != tool || f[1] != base64.RawURLEncoding.EncodeToString(digest) {
		return 0, invalidParams("requestState was issued for another request")
	}
	round, err1 := strconv.Atoi(f[2])
	exp, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || round < 1 {
		return 0, errBadState
	}
	if time.Now().Unix() > exp {
		return 0, invalidParams("requestState expired")
	}
	return round, nil
}

// modernAnswer turns askClient's stateless-era outcomes into the tool's
// answer: the input_required result, or a JSON-RPC error. ok is false for
// the other errors.
func modernAnswer(r *request, buf []byte, err error) (_ []byte, _ *messages.WireError, ok bool) {
	if !r.modern {
		return buf, nil, false
	}
	var need *inputNeeded
	if errors.As(err, &need) {
		buf, werr := appendMarshal(buf, &need.result)
		return buf, werr, true
	}
	var werr *messages.WireError
	if errors.As(err, &werr) && (werr.Code == messages.CodeInvalidParams || werr.Code == messages.CodeMissingClientCapability) {
		return buf, werr, true
	}
	return buf, nil, false
}
