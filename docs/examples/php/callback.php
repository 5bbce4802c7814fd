<?php
// A callback endpoint (php-fpm, or `php -S 127.0.0.1:8000 callback.php`):
// verifies the signature over the raw body, records the event (here: a JSON
// line appended to $CALLBACK_LOG) and answers 200.
require __DIR__ . '/stablegate.php';

if ($_SERVER['REQUEST_METHOD'] !== 'POST') { http_response_code(204); return; }
$raw = file_get_contents('php://input'); // the bytes as received, never json_encode(json_decode(...))
$headers = [];
foreach ($_SERVER as $k => $v) {
    if (strncmp($k, 'HTTP_', 5) === 0) $headers[strtolower(str_replace('_', '-', substr($k, 5)))] = $v;
}
if (!stablegate_verify_callback($raw, $headers, getenv('STABLEGATE_API_KEY'))) {
    http_response_code(401);
    echo 'bad signature';
    return;
}
$event = json_decode($raw, true);
// Update the order by orderNo idempotently: deliveries may repeat.
file_put_contents(getenv('CALLBACK_LOG') ?: 'callbacks.log', json_encode($event, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n", FILE_APPEND | LOCK_EX);
echo 'ok';
