/** Decodes bytes as UTF-8, failing on any invalid sequence (WHATWG Encoding, `fatal`). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a request header value. Node hands header values over one byte per character
 * (Latin-1, as RFC 9110 §5.5 leaves non-ASCII octets opaque), so a client that sends a name as raw
 * UTF-8 bytes — curl, ShareX and most HTTP libraries do for `résumé.pdf` — would read as
 * `rÃ©sumÃ©.pdf`. When the value's bytes form valid UTF-8 they are decoded as UTF-8; otherwise
 * (real Latin-1 text such as a lone `é` byte) the value is kept as it came. ASCII values, and so
 * percent-encoded ones, are returned unchanged.
 * @param value a header value as Node parsed it, or undefined when the header is absent
 */
export function headerText(value: string | undefined): string | undefined {
  // Only bytes 0x80–0xFF may start a multi-byte sequence; a character above 0xFF did not come from the wire.
  if (value === undefined || !/[\x80-\xff]/.test(value) || /[\u0100-\uffff]/.test(value)) return value;
  try {
    return STRICT_UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}
