import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { describeError } from './http-errors.js';

describe("describeError of NestJS's HttpExceptions", () => {
  it('keeps the status each one carries', () => {
    assert.equal(describeError(new NotFoundException('no such item')).status, 404);
    assert.equal(describeError(new BadRequestException('bad item')).status, 400);
    assert.equal(describeError(new HttpException('teapot', 418)).status, 418);
    assert.equal(describeError(new NotFoundException('no such item')).message, 'no such item');
  });

  it('takes no status outside 400-599 from one', () => {
    assert.equal(describeError(new HttpException('moved', 301)).status, 500);
  });

  it('reads `status` only from errors shaped like one', () => {
    assert.equal(describeError(Object.assign(new Error('upstream'), { status: 404 })).status, 500);
  });
});
