export {
  boundedPushText,
  PUSH_TEXT_FALLBACK,
  PUSH_TEXT_MAX_CODE_POINTS,
  sanitizeText,
  TEXT_ELLIPSIS,
  TEXT_MAX_CODE_POINTS_LIMIT,
  toPushText,
} from './text.js';
