<?php
// A shop built on the 彩虹易支付 PHP SDK (EpayCore.class.php) for src/compat/php-plugins.e2e.test.ts,
// run by PHP's built-in server as its router. The SDK is not vendored (no licence to copy it):
// scripts/fetch-plugins.sh fetches two pinned copies into $PLUGINS/ (one has apiPay, the other
// queryOrder/orderStatus); each request loads the one it needs, unchanged.
// Environment: PLUGINS, EPAY_URL, EPAY_PID, EPAY_KEY, STATE.
function state() { $f = getenv('STATE'); return is_file($f) ? json_decode(file_get_contents($f), true) : []; }
function save_state($s) { file_put_contents(getenv('STATE'), json_encode($s)); }
function sdk($copy) {
    require getenv('PLUGINS') . "/$copy/EpayCore.class.php";
    return new EpayCore(['apiurl' => getenv('EPAY_URL'), 'pid' => getenv('EPAY_PID'), 'key' => getenv('EPAY_KEY')]);
}
$shop = 'http://' . $_SERVER['HTTP_HOST'];
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$order = fn() => ['pid' => getenv('EPAY_PID'), 'out_trade_no' => $_GET['out_trade_no'], 'notify_url' => "$shop/sdk/notify", 'return_url' => "$shop/sdk/return", 'name' => 'VIP', 'money' => $_GET['money']] + (isset($_GET['type']) ? ['type' => $_GET['type']] : []);
header('Content-Type: application/json');
if ($path === '/sdk/mapi') {            // the SDK's epayapi.php: API payment
    echo json_encode(sdk('caihong-sdk-api')->apiPay($order() + ['clientip' => '192.0.2.7']));
} elseif ($path === '/sdk/link') {      // the SDK's index.php: the payer's link to submit.php
    echo json_encode(sdk('caihong-sdk-api')->getPayLink($order()));
} elseif ($path === '/sdk/notify') {    // the SDK's notify_url.php
    header('Content-Type: text/plain');
    if (sdk('caihong-sdk-api')->verifyNotify() && $_GET['trade_status'] === 'TRADE_SUCCESS') {
        $s = state(); $s['paid'][$_GET['out_trade_no']] = $_GET['trade_no']; save_state($s);
        echo 'success';
    } else {
        echo 'fail';
    }
} elseif ($path === '/sdk/query') {     // queryOrder() and orderStatus()
    $sdk = sdk('caihong-sdk-query');
    echo json_encode(['order' => $sdk->queryOrder($_GET['trade_no']), 'paid' => $sdk->orderStatus($_GET['trade_no'])]);
} elseif ($path === '/state') {
    echo json_encode(state());
} else {
    http_response_code(404);
}
return true;
