<?php
// Create and query a pay-in, an exclusive wallet and its detail, an invoice; on a sandbox
// gateway, pay the order. Prints one JSON line per answer.
require __DIR__ . '/stablegate.php';

$base = getenv('STABLEGATE_URL') ?: 'http://127.0.0.1:8080';
$client = new StablegateClient($base, getenv('STABLEGATE_MERCHANT_UID'), getenv('STABLEGATE_API_KEY'));
$notifyUrl = getenv('NOTIFY_URL') ?: 'https://shop.example/stablegate/callback?source=stablegate&lang=php';
$run = dechex((int) (microtime(true) * 1000));

function show(string $step, int $status, $body): void
{
    echo json_encode(['step' => $step, 'http' => $status, 'body' => $body], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
}

[$status, $order] = $client->request('POST', '/openapi/payin/orders', [], [
    'chainCode' => 'TRON', 'tokenSymbol' => 'USDT', 'merchantOrderNo' => "php-$run", 'amount' => '7.25', 'notifyUrl' => $notifyUrl,
]);
show('createPayinOrder', $status, $order);
show('getPayinOrder', ...$client->request('GET', '/openapi/payin/orders/' . rawurlencode($order['orderNo'])));

$bindKey = "user/$run"; // "/" must be percent-encoded in the path, and signed that way
show('createExclusiveBinding', ...$client->request('POST', '/openapi/payin/exclusive-bindings', [], [
    'chainCode' => 'BSC', 'tokenSymbol' => 'USDT', 'bindKey' => $bindKey, 'label' => 'Café ☕', 'notifyUrl' => $notifyUrl,
]));
show('getExclusiveBinding', ...$client->request('GET', '/openapi/payin/exclusive-bindings/' . rawurlencode($bindKey), [
    'chainCode' => 'BSC', 'tokenSymbol' => 'USDT', 'recentLimit' => 5,
]));

// An invoice: a price in a currency; the payer picks the network on invoiceUrl.
[$status, $invoice] = $client->request('POST', '/openapi/invoices', [], [
    'merchantOrderNo' => "php-inv-$run", 'priceAmount' => '19.90', 'priceCurrency' => 'USD',
    'description' => 'Tea set · 茶具', 'payments' => ['TRON:USDT', 'BSC:USDC', 'PLASMA:USDT'], 'notifyUrl' => $notifyUrl,
]);
show('createInvoice', $status, $invoice);
show('getInvoice', ...$client->request('GET', '/openapi/invoices/' . rawurlencode($invoice['invoiceNo'])));

try {
    $client->request('GET', '/openapi/payin/orders/PI-no-such-order');
} catch (StablegateApiError $e) {
    show('expectedFailure', $e->status, ['code' => $e->apiCode, 'requestId' => $e->requestId]);
}

if (getenv('SANDBOX_PAY') === '1') { // sandbox gateways only: play the payer and the chain
    foreach ([
        ['transfers', ['chainCode' => 'TRON', 'tokenSymbol' => 'USDT', 'toAddress' => $order['address'], 'amount' => '7.25']],
        ['blocks', ['chainCode' => 'TRON', 'count' => 25]],
    ] as [$path, $payload]) {
        $ctx = stream_context_create(['http' => ['method' => 'POST', 'header' => 'content-type: application/json', 'content' => json_encode($payload), 'ignore_errors' => true]]);
        $res = file_get_contents("$base/sandbox/$path", false, $ctx);
        preg_match('{^HTTP/\S+ (\d{3})}', $http_response_header[0], $m);
        show("sandbox/$path", (int) $m[1], json_decode($res, true));
    }
}
