// Creates and queries a pay-in, an exclusive wallet and its detail; on a
// sandbox gateway, pays the order. Prints one JSON line per answer.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"example.com/stablegate-example/stablegate"
)

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func show(step string, status int, body any) {
	line, _ := json.Marshal(map[string]any{"step": step, "http": status, "body": body})
	fmt.Println(string(line))
}

// PayinOrder holds the fields this program reads; the answer has more.
type PayinOrder struct {
	OrderNo string `json:"orderNo"`
	Address string `json:"address"`
	Status  string `json:"status"`
}

func main() {
	base := env("STABLEGATE_URL", "http://127.0.0.1:8080")
	c := &stablegate.Client{BaseURL: base, MerchantUID: os.Getenv("STABLEGATE_MERCHANT_UID"), APIKey: os.Getenv("STABLEGATE_API_KEY")}
	notifyURL := env("NOTIFY_URL", "https://shop.example/stablegate/callback?source=stablegate&lang=go")
	run := strconv.FormatInt(time.Now().UnixMilli(), 16)

	var order PayinOrder
	st, err := c.Do("POST", "/openapi/payin/orders", nil, map[string]any{
		"chainCode": "TRON", "tokenSymbol": "USDT", "merchantOrderNo": "go-" + run, "amount": "7.25", "notifyUrl": notifyURL,
	}, &order)
	if err != nil {
		log.Fatal(err)
	}
	show("createPayinOrder", st, order)

	var again map[string]any
	if st, err = c.Do("GET", "/openapi/payin/orders/"+url.PathEscape(order.OrderNo), nil, nil, &again); err != nil {
		log.Fatal(err)
	}
	show("getPayinOrder", st, again)

	bindKey := "user/" + run // url.PathEscape writes "/" as %2F; the path is signed as sent
	var binding map[string]any
	if st, err = c.Do("POST", "/openapi/payin/exclusive-bindings", nil, map[string]any{
		"chainCode": "BSC", "tokenSymbol": "USDT", "bindKey": bindKey, "label": "Café ☕", "notifyUrl": notifyURL,
	}, &binding); err != nil {
		log.Fatal(err)
	}
	show("createExclusiveBinding", st, binding)
	var detail map[string]any
	q := url.Values{"chainCode": {"BSC"}, "tokenSymbol": {"USDT"}, "recentLimit": {"5"}}
	if st, err = c.Do("GET", "/openapi/payin/exclusive-bindings/"+url.PathEscape(bindKey), q, nil, &detail); err != nil {
		log.Fatal(err)
	}
	show("getExclusiveBinding", st, detail)

	// An invoice: a price in a currency; the payer picks the network on invoiceUrl.
	var invoice map[string]any
	if st, err = c.Do("POST", "/openapi/invoices", nil, map[string]any{
		"merchantOrderNo": "go-inv-" + run, "priceAmount": "19.90", "priceCurrency": "USD",
		"description": "Tea set · 茶具", "payments": []any{"TRON:USDT", "BSC:USDC", "PLASMA:USDT"}, "notifyUrl": notifyURL,
	}, &invoice); err != nil {
		log.Fatal(err)
	}
	show("createInvoice", st, invoice)
	invoiceNo, _ := invoice["invoiceNo"].(string)
	var invoiceAgain map[string]any
	if st, err = c.Do("GET", "/openapi/invoices/"+url.PathEscape(invoiceNo), nil, nil, &invoiceAgain); err != nil {
		log.Fatal(err)
	}
	show("getInvoice", st, invoiceAgain)

	var apiErr *stablegate.APIError
	if _, err = c.Do("GET", "/openapi/payin/orders/PI-no-such-order", nil, nil, nil); errors.As(err, &apiErr) {
		show("expectedFailure", apiErr.Status, map[string]any{"code": apiErr.Code, "requestId": apiErr.RequestID})
	} else {
		log.Fatalf("expected an API error, got %v", err)
	}

	if os.Getenv("SANDBOX_PAY") == "1" { // sandbox gateways only: play the payer and the chain
		steps := []struct {
			path string
			body map[string]any
		}{
			{"transfers", map[string]any{"chainCode": "TRON", "tokenSymbol": "USDT", "toAddress": order.Address, "amount": "7.25"}},
			{"blocks", map[string]any{"chainCode": "TRON", "count": 25}},
		}
		for _, s := range steps {
			b, _ := json.Marshal(s.body)
			res, err := http.Post(base+"/sandbox/"+s.path, "application/json", bytes.NewReader(b))
			if err != nil {
				log.Fatal(err)
			}
			var out map[string]any
			_ = json.NewDecoder(res.Body).Decode(&out)
			res.Body.Close()
			show("sandbox/"+s.path, res.StatusCode, out)
		}
	}
}
