// Building the tablet's screens: one element with its attributes, text, listeners and children.

/** `tag` with `attrs` (class, text, style, on<event> listeners, other attributes; null/false left out) and `children`. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k === 'style') node.style.cssText = v;  // through the CSSOM: the CSP refuses style attributes
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  children.flat().forEach((c) => c !== null && c !== undefined && node.append(c));
  return node;
}
