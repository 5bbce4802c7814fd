// Package stablegate signs requests to the stablegate merchant API and
// verifies its callbacks. Standard library only; copy it into your module.
package stablegate

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// CanonicalJSON is the canonical body: keys sorted at every depth, compact,
// with "&", "<", ">" written as themselves. json.Marshal escapes those three
// as \u0026, \u003c, \u003e (SetEscapeHTML(false) turns that off) and keeps
// struct fields in declaration order, so the value is first turned into
// maps, whose keys encoding/json sorts (by bytes: the same order as
// JavaScript except for keys mixing U+E000-U+FFFF with characters beyond U+FFFF).
func CanonicalJSON(body any) (string, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers exactly as written
	if err := dec.Decode(&generic); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil // Encode appends a newline
}

// encode is encodeURIComponent's strict RFC 3986 cousin (also escapes !'()*),
// which the gateway accepts. url.QueryEscape alone writes a space as "+".
func encode(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// CanonicalQuery: empty values dropped, sorted by key then value, joined with "&".
func CanonicalQuery(q url.Values) string {
	type pair struct{ k, v string }
	var pairs []pair
	for k, vs := range q {
		for _, v := range vs {
			if v != "" {
				pairs = append(pairs, pair{k, v})
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].k != pairs[j].k {
			return pairs[i].k < pairs[j].k
		}
		return pairs[i].v < pairs[j].v
	})
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = encode(p.k) + "=" + encode(p.v)
	}
	return strings.Join(parts, "&")
}

func hmacHex(key, text string) string {
	m := hmac.New(sha256.New, []byte(strings.TrimSpace(key)))
	m.Write([]byte(text))
	return hex.EncodeToString(m.Sum(nil))
}

// APIError is a failure answer: {code, message, data, requestId} plus the HTTP status.
type APIError struct {
	Status    int
	Code      int            `json:"code"`
	Message   string         `json:"message"`
	Data      map[string]any `json:"data"`
	RequestID string         `json:"requestId"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%d %d %s (requestId %s)", e.Status, e.Code, e.Message, e.RequestID)
}

type Client struct {
	BaseURL, MerchantUID, APIKey string
	HTTP                         *http.Client
}

// Do signs and sends one request. path is sent and signed as given:
// escape path segments with url.PathEscape. out receives the 2xx body.
func (c *Client) Do(method, path string, query url.Values, body any, out any) (int, error) {
	qs := CanonicalQuery(query)
	text := ""
	if method == http.MethodPost {
		if body == nil {
			body = map[string]any{}
		}
		var err error
		if text, err = CanonicalJSON(body); err != nil {
			return 0, err
		}
	}
	ts := strconv.FormatInt(time.Now().UnixMilli(), 10)
	nb := make([]byte, 16)
	if _, err := rand.Read(nb); err != nil {
		return 0, err
	}
	nonce := hex.EncodeToString(nb)
	uid := strings.TrimSpace(c.MerchantUID)
	signed := strings.Join([]string{uid, ts, nonce, method, path, qs, text}, "\n")
	u := strings.TrimRight(c.BaseURL, "/") + path
	if qs != "" {
		u += "?" + qs
	}
	var rd io.Reader
	if method == http.MethodPost {
		rd = strings.NewReader(text) // exactly the signed text
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("x-api-key", strings.TrimSpace(c.APIKey))
	req.Header.Set("x-merchant-uid", uid)
	req.Header.Set("x-timestamp", ts)
	req.Header.Set("x-nonce", nonce)
	req.Header.Set("x-signature", hmacHex(c.APIKey, signed))
	req.Header.Set("accept", "application/json")
	if method == http.MethodPost {
		req.Header.Set("content-type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		e := &APIError{Status: res.StatusCode}
		_ = json.Unmarshal(raw, e)
		return res.StatusCode, e
	}
	if out != nil {
		return res.StatusCode, json.Unmarshal(raw, out)
	}
	return res.StatusCode, nil
}

// VerifyCallback checks x-callback-signature over the raw body bytes as received.
func VerifyCallback(rawBody []byte, h http.Header, apiKey string) bool {
	ts, nonce, sig := h.Get("x-callback-timestamp"), h.Get("x-callback-nonce"), h.Get("x-callback-signature")
	if _, err := strconv.ParseUint(ts, 10, 64); err != nil || nonce == "" || sig == "" {
		return false
	}
	m := hmac.New(sha256.New, []byte(strings.TrimSpace(apiKey)))
	m.Write([]byte(ts + "." + nonce + "."))
	m.Write(rawBody)
	return hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(sig))
}
