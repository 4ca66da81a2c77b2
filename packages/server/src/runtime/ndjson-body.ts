/**
 * Newline-delimited JSON request bodies (`application/ndjson`, `application/x-ndjson`, JSON Lines; D484, "JSON bodies
 * by media type name, ndjson line by line"): read as text within the body limit like any other body, then one JSON
 * text per line. The handler gets the lines' values as an array, in order; a line that is not JSON is 400 naming it.
 * How each value is validated against the declared schema is ndjson-lines.ts.
 */
import express, { type RequestHandler } from 'express';
import { RequestRejection } from './request-validation.js';
import { VALIDATION_MESSAGE } from './errors.js';

/** A line that is not JSON: its number (from 1), the index its value would have had, and why. */
export interface NdjsonLineError {
  readonly line: number;
  readonly index: number;
  readonly reason: string;
}

/**
 * The values of an ndjson text, one per line. Lines end with `\n` (a `\r` before it is dropped); a blank line (or
 * one of whitespace only) holds no value and is skipped, as the ndjson spec allows, so a final newline is no value.
 */
export function parseNdjson(text: string): unknown[] | NdjsonLineError {
  const values: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      return { line: i + 1, index: values.length, reason: (error as Error).message };
    }
  }
  return values;
}

/** The 400 of a line that is not JSON: at the value's place in the body (`body[2]`), the message naming the line. */
export function ndjsonLineRejection(error: NdjsonLineError): RequestRejection {
  return new RequestRejection(400, VALIDATION_MESSAGE, [
    { path: `/body/${error.index}`, message: `line ${error.line} is not valid JSON (${error.reason})` },
  ]);
}

/**
 * The parser of the ndjson media types a spec declares (`types`): the text within `limit` (body-parser's text parser,
 * its charset, encodings and 413), then its lines' values as `req.body`.
 */
export function ndjsonParser(limit: string | number, types: readonly string[]): RequestHandler {
  const text = express.text({ limit, type: [...types] });
  return (req, res, next) =>
    text(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        next(error);
        return;
      }
      if (typeof req.body !== 'string') {
        next();
        return;
      }
      const values = parseNdjson(req.body);
      if (Array.isArray(values)) {
        req.body = values;
        next();
      } else next(ndjsonLineRejection(values));
    });
}
