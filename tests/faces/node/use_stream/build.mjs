// Bundles the useStream page (app.jsx, React and the SDK, all from node_modules: nothing is
// fetched) into OUT_DIR/app.js beside OUT_DIR/index.html.
import { build } from "esbuild";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const [outDir] = process.argv.slice(2);
await build({
  entryPoints: [new URL("./app.jsx", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  outfile: join(outDir, "app.js"),
  logLevel: "error",
});
writeFileSync(
  join(outDir, "index.html"),
  '<!doctype html><html><body><div id="root"></div><script type="module" src="app.js"></script></body></html>',
);
console.log(JSON.stringify({ built: outDir }));
