// A callback endpoint: verifies the signature over the raw body, records the
// event (here: a JSON line appended to $CALLBACK_LOG) and answers 200.
// Run: go run ./cmd/callback PORT
package main

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"os"

	"example.com/stablegate-example/stablegate"
)

func main() {
	apiKey := os.Getenv("STABLEGATE_API_KEY")
	logPath := os.Getenv("CALLBACK_LOG")
	if logPath == "" {
		logPath = "callbacks.log"
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // the bytes as received
		if err != nil || !stablegate.VerifyCallback(raw, r.Header, apiKey) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var event map[string]any
		if err := json.Unmarshal(raw, &event); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		// Update the order by orderNo idempotently: deliveries may repeat.
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			http.Error(w, "cannot record", http.StatusInternalServerError)
			return
		}
		defer f.Close()
		f.Write(append(raw, '\n'))
		w.Write([]byte("ok"))
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[1], nil))
}
