import { x } from "../core/shared/x.js";
export const y = x + 1;
//# sourceMappingURL=y.js.map