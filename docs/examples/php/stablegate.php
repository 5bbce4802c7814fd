<?php
// Signed requests and callback verification for the stablegate merchant API.
// PHP 7.4+ with the curl or (as here) the stream HTTP wrapper; no packages.

/** Keys sorted at every depth. Objects must stay objects: use (object)[] or
 *  stdClass for an empty object, json_encode([]) writes "[]". */
function stablegate_sort_deep($v)
{
    if ($v instanceof stdClass) {
        $v = (array) $v;
        $isObject = true;
    } elseif (is_array($v)) {
        $isObject = $v !== [] && array_keys($v) !== range(0, count($v) - 1);
    } else {
        return $v;
    }
    if (!$isObject) return array_map('stablegate_sort_deep', $v);
    // ksort with SORT_STRING compares bytes: the same order as JavaScript
    // except for keys mixing U+E000-U+FFFF with characters beyond U+FFFF.
    ksort($v, SORT_STRING);
    $out = new stdClass();
    foreach ($v as $k => $x) $out->{$k} = stablegate_sort_deep($x);
    return $out;
}

/** The canonical body. PHP's defaults escape "/" as "\/" and non-ASCII as \uXXXX: turn both off. */
function stablegate_canonical_json($body): string
{
    return json_encode(stablegate_sort_deep($body), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
}

/** The canonical query. rawurlencode is RFC 3986 (also escapes !'()*), which the gateway accepts. */
function stablegate_canonical_query(array $params): string
{
    $pairs = [];
    foreach ($params as $k => $v) {
        foreach (is_array($v) ? $v : [$v] as $item) {
            if ($item === null || $item === '') continue;
            $pairs[] = [(string) $k, is_bool($item) ? ($item ? 'true' : 'false') : (string) $item];
        }
    }
    usort($pairs, fn($a, $b) => strcmp($a[0], $b[0]) ?: strcmp($a[1], $b[1]));
    return implode('&', array_map(fn($p) => rawurlencode($p[0]) . '=' . rawurlencode($p[1]), $pairs));
}

class StablegateApiError extends Exception
{
    public int $status;
    public ?int $apiCode;
    public $data;
    public ?string $requestId;

    public function __construct(int $status, array $body)
    {
        $this->status = $status;
        $this->apiCode = $body['code'] ?? null;
        $this->data = $body['data'] ?? null;
        $this->requestId = $body['requestId'] ?? null;
        parent::__construct("$status {$this->apiCode} " . ($body['message'] ?? '') . " (requestId {$this->requestId})");
    }
}

class StablegateClient
{
    private string $baseUrl;
    private string $merchantUid;
    private string $apiKey;

    public function __construct(string $baseUrl, string $merchantUid, string $apiKey)
    {
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->merchantUid = trim($merchantUid);
        $this->apiKey = trim($apiKey);
    }

    /** $path is sent and signed as given: rawurlencode() path segments yourself. Returns [status, body]. */
    public function request(string $method, string $path, array $query = [], $body = null): array
    {
        $qs = stablegate_canonical_query($query);
        $text = $method === 'POST' ? stablegate_canonical_json($body ?? new stdClass()) : '';
        $ts = (string) (int) floor(microtime(true) * 1000);
        $nonce = bin2hex(random_bytes(16));
        $signed = implode("\n", [$this->merchantUid, $ts, $nonce, $method, $path, $qs, $text]);
        $sig = hash_hmac('sha256', $signed, $this->apiKey);
        $headers = [
            "x-api-key: {$this->apiKey}",
            "x-merchant-uid: {$this->merchantUid}",
            "x-timestamp: $ts",
            "x-nonce: $nonce",
            "x-signature: $sig",
            'accept: application/json',
        ];
        if ($method === 'POST') $headers[] = 'content-type: application/json';
        $ctx = stream_context_create(['http' => [
            'method' => $method,
            'header' => implode("\r\n", $headers),
            'content' => $method === 'POST' ? $text : null, // exactly the signed text
            'ignore_errors' => true, // read failure bodies too
            'timeout' => 30,
        ]]);
        $raw = file_get_contents($this->baseUrl . $path . ($qs !== '' ? "?$qs" : ''), false, $ctx);
        if ($raw === false) throw new RuntimeException('network error');
        preg_match('{^HTTP/\S+ (\d{3})}', $http_response_header[0], $m);
        $status = (int) $m[1];
        $decoded = json_decode($raw, true);
        if ($status < 200 || $status > 299) throw new StablegateApiError($status, is_array($decoded) ? $decoded : []);
        return [$status, $decoded];
    }
}

/** $headers: lower-case names => values (see callback.php for reading them from $_SERVER). */
function stablegate_verify_callback(string $rawBody, array $headers, string $apiKey): bool
{
    $ts = $headers['x-callback-timestamp'] ?? '';
    $nonce = $headers['x-callback-nonce'] ?? '';
    $sig = $headers['x-callback-signature'] ?? '';
    if (!ctype_digit($ts) || $nonce === '' || $sig === '') return false;
    $mac = hash_hmac('sha256', "$ts.$nonce." . $rawBody, trim($apiKey));
    return hash_equals($mac, $sig);
}
