export declare const y: number;
