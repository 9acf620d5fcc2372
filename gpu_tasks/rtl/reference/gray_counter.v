// Gray-code counter: one binary count register; gray is decoded from it, so both outputs change
// only at clock edges and name the same count.
module gray_counter #(parameter W = 4) (
    input  wire         clk,
    input  wire         rst_n,
    input  wire         en,
    output wire [W-1:0] gray,
    output wire [W-1:0] bin
);
    reg [W-1:0] count;

    assign bin  = count;
    assign gray = count ^ (count >> 1);

    always @(posedge clk) begin
        if (!rst_n)  count <= {W{1'b0}};
        else if (en) count <= count + 1'b1;     // wraps by overflow
    end
endmodule
