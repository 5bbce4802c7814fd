"""Create and query a pay-in, an exclusive wallet and its detail, an invoice; on a sandbox
gateway, pay the order. Prints one JSON line per answer."""
import json
import os
import time
import urllib.parse
import urllib.request

from stablegate import ApiError, Client

base = os.environ.get("STABLEGATE_URL", "http://127.0.0.1:8080")
client = Client(base, os.environ["STABLEGATE_MERCHANT_UID"], os.environ["STABLEGATE_API_KEY"])
notify_url = os.environ.get("NOTIFY_URL", "https://shop.example/stablegate/callback?source=stablegate&lang=python")
run = format(int(time.time() * 1000), "x")


def show(step, status, body):
    print(json.dumps({"step": step, "http": status, "body": body}, ensure_ascii=False), flush=True)


status, order = client.request("POST", "/openapi/payin/orders", body={
    "chainCode": "TRON", "tokenSymbol": "USDT", "merchantOrderNo": f"py-{run}", "amount": "7.25", "notifyUrl": notify_url,
})
show("createPayinOrder", status, order)
show("getPayinOrder", *client.request("GET", "/openapi/payin/orders/" + urllib.parse.quote(order["orderNo"], safe="")))

bind_key = f"user/{run}"  # "/" must be percent-encoded in the path, and signed that way
show("createExclusiveBinding", *client.request("POST", "/openapi/payin/exclusive-bindings", body={
    "chainCode": "BSC", "tokenSymbol": "USDT", "bindKey": bind_key, "label": "Café ☕", "notifyUrl": notify_url,
}))
show("getExclusiveBinding", *client.request("GET", "/openapi/payin/exclusive-bindings/" + urllib.parse.quote(bind_key, safe=""),
                                            query={"chainCode": "BSC", "tokenSymbol": "USDT", "recentLimit": 5}))

# An invoice: a price in a currency; the payer picks the network on invoiceUrl.
status, invoice = client.request("POST", "/openapi/invoices", body={
    "merchantOrderNo": f"py-inv-{run}", "priceAmount": "19.90", "priceCurrency": "USD",
    "description": "Tea set · 茶具", "payments": ["TRON:USDT", "BSC:USDC", "PLASMA:USDT"], "notifyUrl": notify_url,
})
show("createInvoice", status, invoice)
show("getInvoice", *client.request("GET", "/openapi/invoices/" + urllib.parse.quote(invoice["invoiceNo"], safe="")))

try:
    client.request("GET", "/openapi/payin/orders/PI-no-such-order")
except ApiError as e:
    show("expectedFailure", e.status, {"code": e.code, "requestId": e.request_id})

if os.environ.get("SANDBOX_PAY") == "1":  # sandbox gateways only: play the payer and the chain
    for path, payload in [("transfers", {"chainCode": "TRON", "tokenSymbol": "USDT", "toAddress": order["address"], "amount": "7.25"}),
                          ("blocks", {"chainCode": "TRON", "count": 25})]:
        req = urllib.request.Request(f"{base}/sandbox/{path}", data=json.dumps(payload).encode(), method="POST",
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as res:
            show("sandbox/" + path, res.status, json.loads(res.read()))
