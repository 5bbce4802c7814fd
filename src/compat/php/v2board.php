<?php
// A v2board shop for the plugin tests (src/compat/php-plugins.e2e.test.ts), run by PHP's built-in
// server as its router. It loads the vendored payment classes unchanged and stubs only what
// v2board's framework gives them: abort(), \Curl\Curl (php-curl-class, over PHP's curl) and the
// PaymentController's answer to a callback ('success', or the plugin's custom_result).
// Environment: PLUGINS, DONGHAN_URL, EPAY_URL/EPAY_PID/EPAY_KEY, BEPUSDT_URL/BEPUSDT_TOKEN/BEPUSDT_TRADE_TYPE, STATE (a JSON file).
namespace Curl {
    class Curl {
        public $response;
        private $opts = [];
        private $agent = '';
        public function setUserAgent($ua) { $this->agent = $ua; }
        public function setOpt($k, $v) { $this->opts[$k] = $v; }
        public function post($url, $data) {
            $ch = curl_init($url);
            foreach ($this->opts as $k => $v) curl_setopt($ch, $k, $v);
            curl_setopt($ch, CURLOPT_USERAGENT, $this->agent);
            curl_setopt($ch, CURLOPT_POST, true);
            curl_setopt($ch, CURLOPT_POSTFIELDS, $data);
            curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
            $body = curl_exec($ch);
            curl_close($ch);
            // php-curl-class decodes a JSON answer into an object.
            $this->response = json_decode((string) $body);
        }
        public function close() {}
    }
}

namespace {
    class AbortException extends \Exception {}
    function abort($code, $message = '') { throw new AbortException($message, $code); }

    require __DIR__ . '/../../vendor/plugins/v2board-epay/EPay.php';
    require __DIR__ . '/../../vendor/plugins/v2board-bepusdt/BEasyPaymentUSDT.php';
    // DongHan-2002/EpusdtForV2Board has no licence: scripts/fetch-plugins.sh fetches it (pinned) when wanted.
    $donghan = getenv('PLUGINS') . '/donghan-epusdt/Epusdt.php';
    if (is_file($donghan)) require $donghan;

    function state() { $f = getenv('STATE'); return is_file($f) ? json_decode(file_get_contents($f), true) : []; }
    function save_state($s) { file_put_contents(getenv('STATE'), json_encode($s)); }
    function shop_url($path) { return 'http://' . $_SERVER['HTTP_HOST'] . $path; }

    function payment($method) {
        if ($method === 'donghan') return new \App\Payments\Epusdt(['url' => getenv('DONGHAN_URL'), 'key' => getenv('BEPUSDT_TOKEN'), 'trade_type' => $_GET['trade_type'] ?? 'usdt.trc20']);
        if ($method === 'epay') return new \App\Payments\EPay(['url' => getenv('EPAY_URL'), 'pid' => getenv('EPAY_PID'), 'key' => getenv('EPAY_KEY')]);
        // The admin's 交易类型 setting (a test may set another one per request).
        return new \App\Payments\BEasyPaymentUSDT(['bepusdt_url' => getenv('BEPUSDT_URL'), 'bepusdt_apitoken' => getenv('BEPUSDT_TOKEN'), 'bepusdt_trade_type' => $_GET['trade_type'] ?? getenv('BEPUSDT_TRADE_TYPE')]);
    }

    $path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
    header('Content-Type: text/plain');
    if (preg_match('#^/(epay|bepusdt|donghan)/pay$#', $path, $m)) {
        // v2board's OrderController::checkout: the order's trade_no, total in cents, notify and return URLs.
        $order = ['trade_no' => $_GET['trade_no'], 'total_amount' => (int) $_GET['total_amount'], 'notify_url' => shop_url("/{$m[1]}/notify"), 'return_url' => shop_url('/#/order/' . $_GET['trade_no'])];
        try {
            echo json_encode(['ok' => true, 'result' => payment($m[1])->pay($order)]);
        } catch (AbortException $e) {
            echo json_encode(['ok' => false, 'message' => $e->getMessage()]);
        }
        return true;
    }
    if (preg_match('#^/(epay|bepusdt|donghan)/notify$#', $path, $m)) {
        // v2board's Guest PaymentController::notify: $request->input() is the query and form, or the JSON body.
        $input = $_GET + $_POST;
        $raw = file_get_contents('php://input');
        if (stripos($_SERVER['CONTENT_TYPE'] ?? '', 'json') !== false) $input = array_merge($input, (array) json_decode($raw, true));
        $verify = payment($m[1])->notify($input);
        if (!is_array($verify)) { http_response_code(500); echo 'verify error'; return true; }
        $s = state();
        $s['paid'][$verify['trade_no']] = $verify['callback_no'];
        save_state($s);
        echo isset($verify['custom_result']) ? $verify['custom_result'] : 'success';
        return true;
    }
    if ($path === '/state') {
        header('Content-Type: application/json');
        echo json_encode(state());
        return true;
    }
    http_response_code(404);
    echo 'not found';
    return true;
}
