<?php
// A WooCommerce shop for the plugin tests (src/compat/php-plugins.e2e.test.ts), run by PHP's
// built-in server as its router. It loads the vendored EPusdt plugin unchanged and stubs only
// the WordPress / WooCommerce functions and classes it calls; orders live in a JSON file.
// Environment: API_URL, PID, SECRET, TOKEN, NETWORK, CURRENCY (the plugin's settings), STATE.
define('ABSPATH', __DIR__ . '/');

// ---- WordPress ----
$GLOBALS['wp_actions'] = [];
function add_action($hook, $fn, $prio = 10) { $GLOBALS['wp_actions'][$hook][] = $fn; }
function add_filter($hook, $fn, $prio = 10) { $GLOBALS['wp_actions'][$hook][] = $fn; }
function do_action($hook, ...$args) { foreach ($GLOBALS['wp_actions'][$hook] ?? [] as $fn) $fn(...$args); }
function did_action($hook) { return 0; }
function plugin_dir_path($file) { return dirname($file) . '/'; }
function plugin_dir_url($file) { return 'http://' . $_SERVER['HTTP_HOST'] . '/wp-content/plugins/wordpress-epusdt/'; }
function plugin_basename($file) { return 'wordpress-epusdt/wordpress-epusdt.php'; }
function __($s, $d = '') { return $s; }
function esc_html__($s, $d = '') { return htmlspecialchars($s); }
function esc_html($s) { return htmlspecialchars((string) $s); }
function esc_url($s) { return (string) $s; }
function esc_url_raw($s) { return (string) $s; }
function wp_json_encode($v) { return json_encode($v); }
function wp_specialchars_decode($s, $q = null) { return htmlspecialchars_decode((string) $s, ENT_QUOTES); }
function wp_strip_all_tags($s) { return strip_tags((string) $s); }
function absint($v) { return abs((int) $v); }
function wp_rand($a, $b) { return random_int($a, $b); }
function wp_unslash($v) { return $v; }
function sanitize_text_field($s) { return trim(strip_tags((string) $s)); }
function wp_parse_args($a, $d) { return array_merge($d, (array) $a); }
function home_url($p = '/') { return 'http://' . $_SERVER['HTTP_HOST'] . $p; }
function add_query_arg($k, $v, $url) { return $url . (strpos($url, '?') === false ? '?' : '&') . rawurlencode($k) . '=' . rawurlencode($v); }
function get_bloginfo($what) { return 'Test Shop'; }
function status_header($code) { http_response_code($code); }
function is_wp_error($v) { return $v instanceof WP_Error; }
class WP_Error { private $m; public function __construct($c, $m) { $this->m = $m; } public function get_error_message() { return $this->m; } }
function get_option($name, $default = false) {
    if ($name !== 'woocommerce_wordpress_epusdt_settings') return $default;
    return ['enabled' => 'yes', 'api_url' => getenv('API_URL'), 'pid' => getenv('PID'), 'secret_key' => getenv('SECRET'), 'token' => getenv('TOKEN') ?: '', 'network' => getenv('NETWORK') ?: '', 'currency' => getenv('CURRENCY') ?: 'cny', 'order_prefix' => 'wpeu', 'debug' => 'no'];
}
function wp_remote_post($url, $args) {
    $ch = curl_init($url);
    $headers = [];
    foreach ($args['headers'] ?? [] as $k => $v) $headers[] = "$k: $v";
    curl_setopt_array($ch, [CURLOPT_POST => true, CURLOPT_POSTFIELDS => $args['body'], CURLOPT_HTTPHEADER => $headers, CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => $args['timeout'] ?? 20, CURLOPT_USERAGENT => $args['user-agent'] ?? 'WordPress']);
    $body = curl_exec($ch);
    if ($body === false) return new WP_Error('http', curl_error($ch));
    $code = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
    curl_close($ch);
    return ['response' => ['code' => $code], 'body' => $body];
}
function wp_remote_retrieve_response_code($r) { return $r['response']['code']; }
function wp_remote_retrieve_body($r) { return $r['body']; }

// ---- WooCommerce ----
function state() { $f = getenv('STATE'); return is_file($f) ? json_decode(file_get_contents($f), true) : ['orders' => []]; }
function save_state($s) { file_put_contents(getenv('STATE'), json_encode($s)); }
class WC_Order {
    public $data;
    public function __construct($data) { $this->data = $data; }
    public function get_id() { return $this->data['id']; }
    public function get_order_number() { return (string) $this->data['id']; }
    public function get_total() { return $this->data['total']; }
    public function get_payment_method() { return 'wordpress_epusdt'; }
    public function get_meta($k, $single = true) { return $this->data['meta'][$k] ?? ''; }
    public function update_meta_data($k, $v) { $this->data['meta'][$k] = $v; }
    public function update_status($status, $note = '') { $this->data['status'] = $status; }
    public function is_paid() { return in_array($this->data['status'], ['processing', 'completed'], true); }
    public function payment_complete($transaction_id = '') { $this->data['status'] = 'processing'; $this->data['transaction_id'] = $transaction_id; }
    public function add_order_note($note) { $this->data['notes'][] = $note; }
    public function save() { $s = state(); $s['orders'][(string) $this->data['id']] = $this->data; save_state($s); }
}
function wc_get_order($id) { $o = state()['orders'][(string) $id] ?? null; return $o ? new WC_Order($o) : false; }
function wc_format_decimal($v, $dp = false) { return $dp === false ? (string) $v : number_format((float) $v, $dp, '.', ''); }
function wc_get_price_decimals() { return 2; }
function wc_add_notice($message, $type = 'success') { $GLOBALS['wc_notices'][] = $message; }
class WC_Payment_Gateway {
    public $id; public $settings = []; public $form_fields = []; public $plugin_id = 'woocommerce_'; public $enabled;
    public function init_settings() { $this->settings = get_option($this->plugin_id . $this->id . '_settings', []); }
    public function get_option($k, $d = '') { return $this->settings[$k] ?? $d; }
    public function is_available() { return true; }
    public function get_return_url($order) { return home_url('/checkout/order-received/' . $order->get_id() . '/'); }
    public function process_admin_options() {}
    public function admin_options() {}
}

require __DIR__ . '/../../vendor/plugins/wordpress-epusdt/wordpress-epusdt.php';
do_action('plugins_loaded');

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path === '/shop/checkout') {
    // The customer places order <id> for <total> and pays with EPusdt: WooCommerce calls process_payment.
    (new WC_Order(['id' => (int) $_GET['order'], 'total' => $_GET['total'], 'status' => 'pending', 'meta' => []]))->save();
    $result = (new WordPress_EPUSDT_Gateway())->process_payment((int) $_GET['order']);
    header('Content-Type: application/json');
    echo json_encode(['result' => $result, 'notices' => $GLOBALS['wc_notices'] ?? [], 'order' => state()['orders'][(string) $_GET['order']]]);
    return true;
}
if ($path === '/shop/order') {
    header('Content-Type: application/json');
    echo json_encode(state()['orders'][(string) $_GET['order']] ?? null);
    return true;
}
if (($_GET['wc-api'] ?? '') !== '') {
    // WooCommerce's WC_API: ?wc-api=<name> runs the woocommerce_api_<name> action.
    do_action('woocommerce_api_' . $_GET['wc-api']);
    return true;
}
http_response_code(404);
echo 'not found';
return true;
