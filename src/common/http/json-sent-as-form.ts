/**
 * The answer to a JSON document sent as a form (contract §1, §2): `curl -d '{…}'` without
 * `-H 'Content-Type: application/json'` sends `application/x-www-form-urlencoded`
 * (https://curl.se/docs/manpage.html#-d), and read as a form the whole document is one key with no
 * value, so every field would be reported as required. A form body never starts with `{` or `[`
 * (a form encoder percent-encodes them, https://url.spec.whatwg.org/#urlencoded-serializing), so
 * such a body is refused as a whole: 400 `{"detail"}`, like malformed JSON (contract §1, §2).
 */
export const JSON_SENT_AS_FORM =
  'The body was sent as application/x-www-form-urlencoded (what curl -d sends by default) but it is JSON, so it was not read: send it with "Content-Type: application/json".';

const FIRST_NON_SPACE = /^[ \t\r\n]*([{[])/;

/** body-parser `verify` of urlencoded bodies: throws the 400 when `body` is a JSON object or array. */
export function rejectJsonSentAsForm(body: Buffer): void {
  // The first bytes are enough: JSON starts with `{` or `[` after optional whitespace.
  if (FIRST_NON_SPACE.test(body.subarray(0, 64).toString('latin1'))) {
    throw Object.assign(new Error(JSON_SENT_AS_FORM), { status: 400, type: 'entity.verify.failed' });
  }
}
