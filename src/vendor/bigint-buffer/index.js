'use strict';
// Same API as bigint-buffer 1.1.5, pure JS (see package.json for why).
Object.defineProperty(exports, '__esModule', { value: true });

function toBigIntBE(buf) {
  const hex = Buffer.from(buf).toString('hex');
  return hex.length === 0 ? BigInt(0) : BigInt('0x' + hex);
}

function toBigIntLE(buf) {
  return toBigIntBE(Buffer.from(buf).reverse());
}

function toBufferBE(num, width) {
  if (width <= 0) return Buffer.alloc(0);
  // Keep the low `width` bytes, as the native implementation does.
  const masked = BigInt.asUintN(width * 8, BigInt(num));
  return Buffer.from(masked.toString(16).padStart(width * 2, '0'), 'hex');
}

function toBufferLE(num, width) {
  return toBufferBE(num, width).reverse();
}

exports.toBigIntBE = toBigIntBE;
exports.toBigIntLE = toBigIntLE;
exports.toBufferBE = toBufferBE;
exports.toBufferLE = toBufferLE;
